// Issue 34 item 5: `gateway models check` refuses a model that promises streamed previews
// (`capabilities.partial_images`) on a route whose vendor has no streamed image operation; the
// shipped example's streaming models pass.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { checkCatalog } from '../../src/catalog/check.js';
import { loadConfig } from '../../src/config/load.js';

const examplePath = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'config', 'gateway.example.yaml');

test('the example declares previews on sim/image and the gpt-image models, each on a route that streams them', (t) => {
  const config = loadConfig({ configPath: examplePath, env: {} });
  t.deepEqual(config.models.filter((model) => model.capabilities.partial_images).map((model) => model.id), ['sim/image', 'openai/gpt-image-1', 'openai/gpt-image-2']);
  t.deepEqual(checkCatalog(config).filter((problem) => problem.field === 'capabilities.partial_images'), []);
});

test('models check: partial_images on a route whose vendor cannot stream images is an error', (t) => {
  const image = (id: string, provider: string) => ({ id, name: id, type: 'image', route: { provider, model: 'image' }, pricing: { per_image: '1.00' }, capabilities: { partial_images: true } });
  const config = loadConfig({
    env: {},
    raw: { providers: { sim: { kind: 'sim' }, upscaler: { kind: 'upscaler', base_url: 'http://127.0.0.1:9' } }, models: [image('sim/streams', 'sim'), image('up/never', 'upscaler')] },
  });
  t.deepEqual(checkCatalog(config).filter((problem) => problem.field === 'capabilities.partial_images'), [
    { model: 'up/never', field: 'capabilities.partial_images', severity: 'error', message: 'provider "upscaler" (upscaler) cannot stream partial images' },
  ]);
});
