// Reads the import graph of src/ the way the layout tests need it (test/http/nothing-imports-http,
// test/vendors/boundaries): every .ts file under a folder, and every module a file names, in
// each form TypeScript allows, with `import type` told apart (it leaves nothing at run time).
import { readdirSync } from 'node:fs';
import path from 'node:path';

export const repositoryRoot = path.resolve(import.meta.dirname, '../..');
export const sourceRoot = path.join(repositoryRoot, 'src');

/** Every .ts file under `dir`, recursively. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

export interface Import {
  readonly specifier: string;
  /** `import type … from` / `export type … from`: gone after compilation. */
  readonly typeOnly: boolean;
}

/** `import … from`, `import type … from`, `export … from`, `import '…'`, `import('…')`. */
export function importsOf(text: string): Import[] {
  const pattern = /(?:^\s*(import|export)(\s+type)?\b[^'";]*?\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)(['"])([^'"]+)\3/gm;
  return [...text.matchAll(pattern)].map((match) => ({ specifier: match[4]!, typeOnly: match[2] !== undefined }));
}

/** The absolute path a relative specifier of `file` names (as written, extension included); undefined for a package. */
export function resolveRelative(file: string, specifier: string): string | undefined {
  return specifier.startsWith('.') ? path.resolve(path.dirname(file), specifier) : undefined;
}
