// The route table chooses a route's error body; unmatched paths keep the prefix rule.
import test from 'ava';
import { encodeAnthropicError } from '../../src/dialects/messages/error.js';
import { encodeOpenaiError } from '../../src/dialects/shared/openai-error.js';
import { errorShapes } from '../../src/http/error-shape.js';
import { routeTable, type RouteDefinition } from '../../src/http/route-table.js';

const handler = async () => undefined;

test('a route\'s declared shape wins; an undeclared one and unmatched paths go by the /v1/messages prefix', (t) => {
  const routes: RouteDefinition[] = [
    { method: 'POST', path: '/v1/anthropic-shaped', auth: 'none', scope: null, errors: encodeAnthropicError, handler },
    { method: 'POST', path: '/v1/messages/openai-shaped', auth: 'none', scope: null, errors: encodeOpenaiError, handler },
    { method: 'POST', path: '/v1/messages/plain', auth: 'none', scope: null, handler },
  ];
  const shapeFor = errorShapes(routes);
  t.is(shapeFor('/v1/anthropic-shaped', '/v1/anthropic-shaped'), encodeAnthropicError);
  t.is(shapeFor('/v1/messages/openai-shaped', '/v1/messages/openai-shaped'), encodeOpenaiError);
  t.is(shapeFor('/v1/messages/plain', '/v1/messages/plain'), encodeAnthropicError);
  t.is(shapeFor(undefined, '/v1/messages/nope'), encodeAnthropicError);
  t.is(shapeFor(undefined, '/v1/nope'), encodeOpenaiError);
});

test('the shipped table: Messages routes answer Anthropic bodies, chat-completions, responses and media OpenAI ones', (t) => {
  const shapeFor = errorShapes(routeTable);
  for (const path of ['/v1/messages', '/v1/messages/count_tokens']) t.is(shapeFor(path, path), encodeAnthropicError, path);
  for (const path of ['/v1/chat/completions', '/v1/responses', '/v1/images/generations', '/v1/videos/:id', '/v1/files']) t.is(shapeFor(path, path), encodeOpenaiError, path);
});

test('one path cannot declare two shapes (the router names a match by path only)', (t) => {
  const routes: RouteDefinition[] = [
    { method: 'GET', path: '/v1/x', auth: 'none', scope: null, errors: encodeAnthropicError, handler },
    { method: 'POST', path: '/v1/x', auth: 'none', scope: null, errors: encodeOpenaiError, handler },
  ];
  t.throws(() => errorShapes(routes), { message: 'route table: /v1/x declares two error shapes' });
});
