// ava for the in-process suites only (`npm run test:fast`): no process is started, dist/ is not needed.
import { shared } from './ava.config.mjs';
import { allSuites, processSuites } from './scripts/test-suites.mjs';

export default { ...shared, files: [...allSuites, ...processSuites.map((glob) => `!${glob}`)] };
