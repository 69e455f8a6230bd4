import { Flags } from '@oclif/core';
import { GatewayCommand } from '../src/cli/base-command.js';
import { startSimulator } from '../src/sim/server.js';
import { listenFailure } from '../src/util/listen-failure.js';

// The upstream simulator as a server of its own (for demos and benchmarks against a gateway
// on another machine). It needs no database and no configuration file, so it does not open
// the services: it only listens until SIGTERM or SIGINT.
export default class Simulate extends GatewayCommand {
  static override description = 'Run the built-in upstream simulator alone (OpenAI chat, images, audio, embeddings, videos; Anthropic messages; System One; Stability upscale; Suno-style music; the video upscaler) until SIGTERM or SIGINT';
  static override examples = ['<%= config.bin %> simulate', '<%= config.bin %> simulate --port 9000 --json'];
  static override flags = {
    host: Flags.string({ description: 'address to listen on', default: '127.0.0.1' }),
    port: Flags.integer({ description: 'port to listen on, 0 for any free port', default: 8090, min: 0, max: 65535 }),
  };

  async run(): Promise<void> {
    const { flags } = await this.parse(Simulate);
    this.jsonOutput = flags.json;
    let simulator;
    try {
      simulator = await startSimulator({ host: flags.host, port: flags.port });
    } catch (error) {
      this.fail(listenFailure(error, flags.host, flags.port, { port: '--port', host: '--host' }));
    }
    // One line, like `serve --json`, so a script can read the address as soon as it appears.
    if (flags.json) process.stdout.write(`${JSON.stringify({ url: simulator.url, pid: process.pid })}\n`);
    else process.stdout.write(`simulator listening on ${simulator.url}\n`);
    const stop = () => {
      simulator.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  }
}
