// Every command documents itself: a description, at least one example in `--help`, and the
// global --json and --config flags (DESIGN §2.1). Read from the command classes themselves, so
// a new command without an example fails here, not in an operator's terminal.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import test from 'ava';

const commandsDir = path.resolve(import.meta.dirname, '../../commands');
const commandFiles = readdirSync(commandsDir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts')).sort();

test('every command has a description, an example and the --json and --config flags', async (t) => {
  t.true(commandFiles.length >= 22, `found ${commandFiles.length} commands`);
  for (const file of commandFiles) {
    const command = (await import(pathToFileURL(path.join(commandsDir, file)).href)).default;
    const name = file.replace(/\.ts$/, '').split(path.sep).join(' ');
    t.true(typeof command.description === 'string' && command.description.length > 10, `${name}: description`);
    t.true(Array.isArray(command.examples) && command.examples.length > 0, `${name}: an example`);
    for (const example of command.examples ?? []) {
      const line = typeof example === 'string' ? example : example.command;
      t.true(line.includes(`<%= config.bin %> ${name}`), `${name}: the example runs the command (${line})`);
    }
    t.truthy(command.baseFlags?.json, `${name}: --json`);
    t.truthy(command.baseFlags?.config, `${name}: --config`);
  }
});
