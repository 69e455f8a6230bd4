// ava for the full replay of the container image's build (`npm run test:image`): ~2 min on a
// quiet machine, up to 9 under load, so it is not part of `npm test`, which runs the static
// check test/install/image-static.test.ts instead. Run it after changing the Dockerfile,
// .dockerignore or the dependencies (docs/development.md).
import { shared } from './ava.config.mjs';

export default { ...shared, files: ['test/install/image-replay.slow.ts'], timeout: '10m' };
