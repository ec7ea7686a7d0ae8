import { Flags } from '@oclif/core';
import { PartnerkitCommand } from '../../src/cli/base.js';
import { renderObject } from '../../src/cli/output.js';

export default class PartnerCreate extends PartnerkitCommand {
  static override description = 'Create a partner';
  static override examples = ['<%= config.bin %> partner create --name "Jane Doe" --email jane@example.com'];
  static override flags = {
    name: Flags.string({ description: 'partner name', required: true }),
    email: Flags.string({ description: 'partner e-mail (unique)', required: true }),
  };

  async run() {
    const { flags } = await this.parse(PartnerCreate);
    const partner = await this.withClient(flags, {}, (client) => client.partners.create({ name: flags.name, email: flags.email }));
    this.log(renderObject(partner));
    return partner;
  }
}
