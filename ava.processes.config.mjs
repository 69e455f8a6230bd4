// ava for the suites that start processes only (`npm run test:processes`; they need `npm run build`).
import { shared } from './ava.config.mjs';
import { processSuites } from './scripts/test-suites.mjs';

export default { ...shared, files: processSuites };
