import { Flags } from '@oclif/core';
import { PartnerkitCommand } from '../../src/cli/base.js';
import { absolute, NO_SERVER_NOTE, scriptTag } from '../../src/cli/links.js';
import { renderObject } from '../../src/cli/output.js';

export default class PartnerLinks extends PartnerkitCommand {
  static override description =
    "A partner's links in a program: the partner link (records the click, then redirects to the landing URL), the landing URL with ?via= for pages that load the tracking script, and that script's tag";
  static override examples = [
    '<%= config.bin %> partner links --program 1 --partner 2',
    '<%= config.bin %> partner links --program 1 --partner 2 --url https://partners.example.com',
  ];
  static override flags = {
    program: Flags.integer({ description: 'program id', required: true, min: 1 }),
    partner: Flags.integer({ description: 'partner id', required: true, min: 1 }),
  };

  async run() {
    const { flags } = await this.parse(PartnerLinks);
    const links = await this.withClient(flags, {}, (client) => client.partners.links(flags.program, flags.partner));
    const server = this.serverUrl(flags);
    const link = absolute(server, links.linkPath);
    this.log(
      renderObject({
        refCode: links.refCode,
        status: links.status,
        link,
        landingUrl: links.landingUrl,
        viaUrl: links.viaUrl,
        script: scriptTag(server, links.programId),
      }),
    );
    if (server === undefined) this.log(`\n${NO_SERVER_NOTE}`);
    // --json: the API's answer and the whole link, as printed above.
    return { ...links, link };
  }
}
