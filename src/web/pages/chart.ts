import uPlot from 'uplot';
import { h } from './dom.js';
import { formatDay, formatShortDay } from './format.js';

/**
 * The daily chart (docs/pages.md#the-chart): one line per metric over the report's day rows, the
 * previous period's rows as a faint dashed line of the same colour, day by day; counts on the left
 * axis, money on the right, both from 0; ticks on whole days in the browser's locale; today, still
 * under way, shaded as partial. Checkboxes show and hide a metric (with its previous line) and, as
 * the pointer moves over a day, show its values: the one legend.
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
const DAY = 86_400;
/** Tick steps: whole days and weeks, then about a month, a quarter, a half and a year of days. */
const DAY_STEPS = [1, 2, 7, 14, 28, 56, 91, 182, 364].map((days) => days * DAY);

/**
 * Whether the last day of a report is still under way: a preset period always ends with today; a
 * custom range does when it ends on the browser's UTC today.
 */
export function partialLastDay(period: string, lastDay: string | undefined): boolean {
  return lastDay !== undefined && (period !== 'custom' || lastDay === new Date().toISOString().slice(0, 10));
}

/** A square of a series' colour, set through the CSSOM: the pages' policy refuses style attributes. */
function swatch(color: string): HTMLElement {
  const square = h('span', { class: 'swatch', 'aria-hidden': 'true' });
  square.style.background = color;
  return square;
}

/** An axis as wide as its longest label (uPlot's axis autosize). */
function fitLabels(u: uPlot, values: string[] | null, axisIndex: number, cycle: number): number {
  const axis = u.axes[axisIndex] as uPlot.Axis & { _size?: number; ticks: { size: number }; gap: number; font: [string] };
  if (cycle > 1 && axis._size !== undefined) return axis._size;
  const longest = (values ?? []).reduce((a, b) => (b.length > a.length ? b : a), '');
  u.ctx.font = axis.font[0];
  return Math.ceil(axis.ticks.size + axis.gap + (longest === '' ? 0 : u.ctx.measureText(longest).width / uPlot.pxRatio)) + 4;
}

/** A value axis from 0 to a round number above the greatest value (1 when every value is 0). */
const fromZero = (_u: uPlot, _min: number | null, max: number | null): uPlot.Range.MinMax => [0, max !== null && max > 0 ? uPlot.rangeNum(0, max, 0.1, true)[1] : 1];

export function dailyChart(days: string[], series: ChartSeries[], caption: string, partial: boolean): HTMLElement {
  const plot = h('div', { class: 'plot', role: 'img', 'aria-label': `${caption}: a line per series, one point per day` });
  const readouts = series.map(() => h('output', { class: 'readout' }));
  const hovered = h('output', { class: 'readout day' });
  const toggles = h(
    'fieldset',
    { class: 'toggles' },
    h('legend', {}, 'Series ', hovered),
    ...series.map((s, i) =>
      h(
        'label',
        {},
        h('input', { type: 'checkbox', checked: true, name: `series-${i}`, onchange: (e) => toggle(i, (e.target as HTMLInputElement).checked) }),
        swatch(s.color),
        ' ',
        s.label,
        readouts[i],
      ),
    ),
  );
  const note = partial ? h('p', { class: 'chart-note' }, `${formatDay(days.at(-1)!)}, shaded, is still under way.`) : '';
  const figure = h('figure', { class: 'chart' }, h('figcaption', {}, caption), toggles, plot, note);

  const lines: uPlot.Series[] = [{}];
  const data: (number | null)[][] = [days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000)];
  const index: number[][] = [];
  for (const s of series) {
    const own = [lines.length];
    lines.push({ label: s.label, stroke: s.color, width: 2, scale: s.money ? 'money' : 'count' });
    data.push(s.values);
    if (s.previous) {
      own.push(lines.length);
      lines.push({ label: `${s.label} (previous period)`, stroke: `${s.color}55`, width: 1, dash: [4, 4], scale: s.money ? 'money' : 'count' });
      data.push(days.map((_d, i) => s.previous![i] ?? null));
    }
    index.push(own);
  }

  let chart: uPlot | undefined;
  function toggle(i: number, visible: boolean) {
    for (const line of index[i]) chart?.setSeries(line, { show: visible });
  }
  /** The values of the day under the pointer, beside their checkboxes; nothing when it is off the chart. */
  function readOut(u: uPlot) {
    const day = u.cursor.idx;
    hovered.textContent = day == null ? '' : `· ${formatDay(days[day])}`;
    series.forEach((s, i) => {
      readouts[i].textContent = day == null ? '' : ` ${s.format(s.values[day])}`;
    });
  }
  /** Today's column, lightly shaded: its numbers are not final. */
  function shadePartial(u: uPlot) {
    if (!partial || days.length === 0) return;
    const last = data[0][days.length - 1]!;
    const left = u.valToPos(last - DAY / 2, 'x', true);
    const right = Math.min(u.valToPos(last + DAY / 2, 'x', true), u.bbox.left + u.bbox.width);
    u.ctx.save();
    u.ctx.fillStyle = 'rgba(100, 116, 139, 0.12)';
    u.ctx.fillRect(Math.max(left, u.bbox.left), u.bbox.top, right - Math.max(left, u.bbox.left), u.bbox.height);
    u.ctx.restore();
  }
  const money = series.find((s) => s.money);
  const width = () => Math.max(280, plot.clientWidth);
  // Drawn once the figure is in the document, when its width is known; redrawn to the width after.
  requestAnimationFrame(() => {
    chart = new uPlot(
      {
        width: width(),
        height: HEIGHT,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
        series: lines,
        legend: { show: false },
        scales: { x: { time: true }, count: { range: fromZero }, money: { range: fromZero } },
        axes: [
          {
            incrs: DAY_STEPS,
            space: 56,
            values: (_u, ticks) => {
              const labels = ticks.map(formatShortDay);
              figure.dataset.ticks = labels.join('|');
              return labels;
            },
          },
          { scale: 'count', size: fitLabels, values: (_u, ticks) => ticks.map((t) => series[0].format(t)) },
          ...(money ? [{ scale: 'money', side: 1, size: fitLabels, grid: { show: false }, values: (_u: uPlot, ticks: number[]) => ticks.map(money.format) }] : []),
        ],
        hooks: {
          drawClear: [shadePartial],
          setCursor: [readOut],
          draw: [
            (u) => {
              figure.dataset.from = `${u.scales.count.min}|${money ? u.scales.money.min : ''}`;
              figure.setAttribute('data-drawn', 'true');
            },
          ],
        },
      },
      data as uPlot.AlignedData,
      plot,
    );
    new ResizeObserver(() => chart?.setSize({ width: width(), height: HEIGHT })).observe(plot);
  });
  return figure;
}
