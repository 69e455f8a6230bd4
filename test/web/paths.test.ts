// Page paths of the cabinet's router (web/src/paths.ts): what the address bar holds and which
// registered page it names.
import test from 'ava';
import { hrefOf, matchPath, pagePathOf } from '../../web/src/paths.js';

test('location paths under /cabinet map to page paths and back', (t) => {
  t.is(pagePathOf('/cabinet/'), '/');
  t.is(pagePathOf('/cabinet'), '/');
  t.is(pagePathOf('/cabinet/keys'), '/keys');
  t.is(pagePathOf('/cabinet/keys/'), '/keys');
  t.is(pagePathOf('/cabinetry'), '/');
  t.is(pagePathOf('/elsewhere'), '/');
  t.is(hrefOf('/'), '/cabinet/');
  t.is(hrefOf('/keys'), '/cabinet/keys');
});

test('patterns with :parameters match whole paths only', (t) => {
  t.deepEqual(matchPath('/keys', '/keys'), {});
  t.is(matchPath('/keys', '/keys/x'), undefined);
  t.deepEqual(matchPath('/console/accounts/:id', '/console/accounts/acc%201'), { id: 'acc 1' });
  t.is(matchPath('/console/accounts/:id', '/console/accounts/'), undefined);
  t.is(matchPath('/console/accounts/:id', '/console/accounts/%E0%A4%A'), undefined, 'a malformed escape is no match, not an exception');
});
