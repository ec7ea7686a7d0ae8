import { Flags } from '@oclif/core';
import type { Application } from '../api/index.js';
import { formatWhen, renderTable } from './output.js';

export const applicationFlag = Flags.integer({ description: 'application id', required: true, min: 1 });

/** Applications, one line each: who, their status and when they applied. */
export function renderApplications(applications: Application[], now: Date, empty: string): string {
  return renderTable(
    [
      { header: 'id', value: (a) => a.id, align: 'right' },
      { header: 'name', value: (a) => a.name, shrink: 'end' },
      { header: 'email', value: (a) => a.email, shrink: 'middle' },
      { header: 'status', value: (a) => a.status },
      { header: 'applied', value: (a) => formatWhen(a.createdAt, now) },
    ],
    applications,
    { empty },
  );
}
