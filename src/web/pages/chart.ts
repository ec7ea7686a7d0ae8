import uPlot from 'uplot';
import { h } from './dom.js';
import { formatDay } from './format.js';

/**
 * The daily chart (docs/pages.md#the-chart): one line per metric over the report's day rows, the
 * previous period's rows as a faint dashed line of the same colour, day by day; counts on the left
 * axis, money on the right. Checkboxes show and hide a metric (with its previous line); hovering a
 * day shows every value in the legend.
 */
export type ChartSeries = {
  label: string;
  values: number[];
  previous?: number[];
  money?: boolean;
  color: string;
  format: (value: number) => string;
};

const HEIGHT = 280;

export function dailyChart(days: string[], series: ChartSeries[], caption: string): HTMLElement {
  const plot = h('div', { class: 'plot', role: 'img', 'aria-label': `${caption}: a line per series, one point per day` });
  const toggles = h(
    'fieldset',
    { class: 'toggles' },
    h('legend', {}, 'Series'),
    ...series.map((s, i) =>
      h('label', {}, h('input', { type: 'checkbox', checked: true, name: `series-${i}`, onchange: (e) => toggle(i, (e.target as HTMLInputElement).checked) }), ' ', s.label),
    ),
  );
  const figure = h('figure', { class: 'chart' }, h('figcaption', {}, caption), toggles, plot);

  const lines: uPlot.Series[] = [{ value: (_u, ts) => (ts === null ? '—' : formatDay(new Date(ts * 1000).toISOString())) }];
  const data: (number | null)[][] = [days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000)];
  const index: number[][] = [];
  for (const s of series) {
    const value = (_u: uPlot, v: number | null) => (v === null ? '—' : s.format(v));
    const own = [lines.length];
    lines.push({ label: s.label, stroke: s.color, width: 2, scale: s.money ? 'money' : 'count', value });
    data.push(s.values);
    if (s.previous) {
      own.push(lines.length);
      lines.push({ label: `${s.label} (previous period)`, stroke: `${s.color}55`, width: 1, dash: [4, 4], scale: s.money ? 'money' : 'count', value });
      data.push(days.map((_d, i) => s.previous![i] ?? null));
    }
    index.push(own);
  }

  let chart: uPlot | undefined;
  function toggle(i: number, visible: boolean) {
    for (const line of index[i]) chart?.setSeries(line, { show: visible });
  }
  const width = () => Math.max(280, plot.clientWidth);
  // Drawn once the figure is in the document, when its width is known; redrawn to the width after.
  requestAnimationFrame(() => {
    chart = new uPlot(
      {
        width: width(),
        height: HEIGHT,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        series: lines,
        scales: { x: { time: true } },
        axes: [
          {},
          { scale: 'count', size: 60, values: (_u, ticks) => ticks.map((t) => series[0].format(t)) },
          { scale: 'money', side: 1, size: 80, grid: { show: false }, values: (_u, ticks) => ticks.map((t) => series.find((s) => s.money)?.format(t) ?? String(t)) },
        ],
        hooks: { draw: [() => figure.setAttribute('data-drawn', 'true')] },
      },
      data as uPlot.AlignedData,
      plot,
    );
    new ResizeObserver(() => chart?.setSize({ width: width(), height: HEIGHT })).observe(plot);
  });
  return figure;
}
