import { z } from 'zod';
import { DATA_FORMATS, EXPORT_TABLES } from './constants.js';
import { isoBound } from './reports.js';

export const dataExportQuerySchema = z.object({
  table: z.enum(EXPORT_TABLES),
  format: z.enum(DATA_FORMATS).default('csv'),
  dateFrom: isoBound.optional().describe('Only rows from this instant on (a date: from the start of that UTC day)'),
  dateTo: isoBound.optional().describe('Only rows up to this instant (a date: to the end of that UTC day)'),
  includeTest: z.stringbool().default(false).describe('Also test clicks, test sales and test refunds (is_test true)'),
});

/** The export's file: CSV text, a JSON array, or Parquet bytes (docs/exports.md#what-an-export-holds). */
export const dataFileSchema = z.string().describe('text/csv (RFC 4180 with a header), application/json (an array of rows) or application/vnd.apache.parquet');

/** The query as clients give it: includeTest a boolean, which the URL carries as true or false. */
export type DataExportQuery = Omit<z.input<typeof dataExportQuerySchema>, 'includeTest'> & { includeTest?: boolean };
export type DataExportRequest = z.output<typeof dataExportQuerySchema>;
