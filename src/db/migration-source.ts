// Migrations are the dated files of migrations/ (TypeScript in the source tree, JavaScript
// once built). Loading them ourselves with import() works the same under tsx and node, and
// names are stored without the extension so both forms share one history.
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Knex } from 'knex';

// src/db → ../../migrations in the source tree; dist/src/db → dist/migrations once built.
const directory = fileURLToPath(new URL('../../migrations/', import.meta.url));

interface MigrationFile {
  name: string;
  file: string;
}

export const migrationSource: Knex.MigrationSource<MigrationFile> = {
  async getMigrations() {
    return readdirSync(directory)
      .filter((file) => /^\d{14}_[a-z0-9_-]+\.(ts|js)$/.test(file) && !file.endsWith('.d.ts'))
      .sort()
      .map((file) => ({ name: file.replace(/\.(ts|js)$/, ''), file }));
  },
  getMigrationName(migration) {
    return migration.name;
  },
  async getMigration(migration) {
    return import(pathToFileURL(`${directory}${migration.file}`).href);
  },
};
