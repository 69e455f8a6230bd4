// The catalog (src/errors/catalog.ts) as the table docs/errors.md carries, one row per code.
// Print it with: node --import=tsx -e "import('./test/errors/catalog-table.ts').then((m) => console.log(m.catalogTable()))"
import { errorCatalog, type CatalogEntry } from '../../src/errors/catalog.js';

function row(code: string, entry: CatalogEntry): string {
  const cliOnly = entry.seenIn === 'cli';
  const status = cliOnly ? '—' : [entry.status, ...(entry.otherStatuses ?? [])].join(', ');
  const retry = entry.retryable === null ? '—' : entry.retryable === 'varies' ? 'as the upstream says' : String(entry.retryable);
  const anthropic = cliOnly ? '—' : `\`${entry.anthropicType ?? entry.type}\``;
  const openai = cliOnly ? '—' : `\`${entry.type}\``;
  const seenIn = entry.seenIn.replace('http', 'HTTP').replace('cli', `CLI (exit ${entry.exitCode ?? 1})`);
  return `| \`${code}\` | ${status} | ${openai} | ${anthropic} | ${retry} | ${seenIn} | ${entry.description} |`;
}

export function catalogTable(): string {
  return [
    '| code | status | OpenAI `type` | Anthropic `type` | `x-should-retry` | seen in | when |',
    '|---|---|---|---|---|---|---|',
    ...Object.entries(errorCatalog).map(([code, entry]) => row(code, entry)),
  ].join('\n');
}
