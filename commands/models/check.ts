import { GatewayCommand } from '../../src/cli/base-command.js';
import { checkCatalog } from '../../src/catalog/check.js';

export default class ModelsCheck extends GatewayCommand {
  static override description = 'Validate the catalog: required prices per model type, sane price bounds, reachable routes. Exits 1 on errors.';
  static override examples = ['<%= config.bin %> models check', '<%= config.bin %> models check --config config/gateway.yaml --json'];

  async run(): Promise<void> {
    const { flags } = await this.parse(ModelsCheck);
    this.jsonOutput = flags.json;
    let config;
    try {
      config = this.loadConfiguration(flags.config);
    } catch (error) {
      this.fail(error);
    }
    const problems = checkCatalog(config);
    const errors = problems.filter((p) => p.severity === 'error').length;
    const json = { ok: errors === 0, models: config.models.length, errors, warnings: problems.length - errors, problems };
    const lines = problems.map((p) => `${p.severity.padEnd(7)} ${p.model} ${p.field}: ${p.message}`);
    lines.push(`${config.models.length} models, ${errors} errors, ${problems.length - errors} warnings`);
    this.print({ json, text: lines.join('\n') });
    if (errors > 0) this.exit(1);
  }
}
