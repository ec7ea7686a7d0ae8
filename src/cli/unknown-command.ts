import { toConfiguredId, type Hook } from '@oclif/core';
import { errorDocument } from './errors.js';

/** The exit status of an unknown command, as @oclif/plugin-not-found answers it. */
const NOT_FOUND_EXIT = 127;

/**
 * oclif's init hook: an unknown command asked for --json gets the one error document every failure
 * prints (docs/cli.md#failures-and-exit-statuses) instead of @oclif/plugin-not-found's warning and prompt, which
 * answers it otherwise (docs/cli.md#command-names-help-and-shell-completion).
 */
const unknownCommandAsJson: Hook.Init = async function ({ id, argv, config }) {
  if (id === undefined || id.startsWith('-') || config.findCommand(id) || config.findTopic(id)) return;
  if (!argv.includes('--json')) return;
  const name = toConfiguredId(id, config);
  const failure = { code: 'command_not_found', message: `${name} is not a ${config.bin} command`, status: null, details: null, exit: NOT_FOUND_EXIT };
  process.stdout.write(`${JSON.stringify(errorDocument(failure), null, 2)}\n`);
  this.exit(NOT_FOUND_EXIT);
};

export default unknownCommandAsJson;
