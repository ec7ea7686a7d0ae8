import { expect, test } from 'vitest';
import { readNdjson } from '../../src/sdk/transport.js';

const bytes = (text: string) => new TextEncoder().encode(text);

test('NDJSON read chunk by chunk: lines split across chunks, a character split across chunks, no final newline', async () => {
  const text = '{"progress":{"done":1}}\n{"progress":{"note":"é"}}\n\n{"result":{"ok":true}}';
  const encoded = bytes(text);
  const split = encoded.indexOf(0xa9); // the second byte of é
  const chunks = [encoded.slice(0, 10), encoded.slice(10, split), encoded.slice(split)];
  const lines: unknown[] = [];
  const last = await readNdjson(chunks, (line) => lines.push(line));
  expect(lines).toEqual([{ progress: { done: 1 } }, { progress: { note: 'é' } }, { result: { ok: true } }]);
  expect(last).toEqual({ result: { ok: true } });
});
