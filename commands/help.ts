import { Args, Command, loadHelpClass } from '@oclif/core';

/** `partnerkit help [COMMAND]`: the help @oclif/plugin-not-found points to after a typo (docs/cli.md#command-names-help-and-shell-completion). */
export default class HelpCommand extends Command {
  static override description = 'Show the help of partnerkit, of a topic (help webhook) or of a command (help webhook events)';
  static override examples = ['<%= config.bin %> help', '<%= config.bin %> help webhook events'];
  static override strict = false;
  static override args = { command: Args.string({ description: 'a topic or command, words separated by spaces' }) };

  async run(): Promise<void> {
    const { argv } = await this.parse(HelpCommand);
    const Help = await loadHelpClass(this.config);
    await new Help(this.config, this.config.pjson.oclif.helpOptions).showHelp(argv as string[]);
  }
}
