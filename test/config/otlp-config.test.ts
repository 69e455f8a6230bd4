// observability.otlp as loaded (src/config/load.ts): off by default, the traces address made
// from the endpoint, the defaults, the headers read from headers_env (OTEL_EXPORTER_OTLP_HEADERS'
// format) and what is said when they cannot be.
import test from 'ava';
import { ConfigError, loadConfig } from '../../src/config/load.js';

const load = (otlp: unknown, env: NodeJS.ProcessEnv = {}) => loadConfig({ raw: otlp === undefined ? {} : { observability: { otlp } }, env }).observability.otlp;

test('traces are off unless observability.otlp is set', (t) => {
  t.is(load(undefined), undefined);
  t.is(loadConfig({ raw: { observability: {} }, env: {} }).observability.otlp, undefined);
});

test('the defaults, and /v1/traces appended to the endpoint unless it is there', (t) => {
  t.deepEqual(load({ endpoint: 'http://collector:4318' }), {
    tracesUrl: 'http://collector:4318/v1/traces',
    protocol: 'http/protobuf',
    headers: {},
    headersProblem: undefined,
    serviceName: 'gateway',
    captureContent: false,
    sampleRatio: 1,
  });
  t.is(load({ endpoint: 'https://otlp.example.com/otlp/' })!.tracesUrl, 'https://otlp.example.com/otlp/v1/traces');
  t.is(load({ endpoint: 'https://otlp.example.com/v1/traces' })!.tracesUrl, 'https://otlp.example.com/v1/traces');
});

test('headers come from headers_env, decoded; an unset or malformed variable is reported, not fatal', (t) => {
  t.like(load({ endpoint: 'http://c:4318', headers_env: 'OTLP_HEADERS' }, { OTLP_HEADERS: 'Authorization=Basic%20dXNlcjpwYXNz, x-scope-orgid=tenant=1' }), {
    headers: { authorization: 'Basic dXNlcjpwYXNz', 'x-scope-orgid': 'tenant=1' },
    headersProblem: undefined,
  });
  t.like(load({ endpoint: 'http://c:4318', headers_env: 'OTLP_HEADERS' }, {}), {
    headers: {},
    headersProblem: 'observability.otlp.headers_env names OTLP_HEADERS, which is not set: spans are sent without headers',
  });
  t.like(load({ endpoint: 'http://c:4318', headers_env: 'OTLP_HEADERS' }, { OTLP_HEADERS: 'just-a-token' }), {
    headers: {},
    headersProblem: 'OTLP_HEADERS is not a list of name=value pairs: spans are sent without headers',
  });
});

test('a wrong endpoint, protocol or ratio stops the program with the path', (t) => {
  const error = t.throws(() => load({ endpoint: 'collector:4318', protocol: 'grpc', sample_ratio: 2 }), { instanceOf: ConfigError })!;
  t.is(error.problems.length, 3);
  t.regex(error.problems[0]!, /^observability\.otlp\.endpoint: expected an http\(s\) address/);
  t.regex(error.problems[1]!, /^observability\.otlp\.protocol: /);
  t.regex(error.problems[2]!, /^observability\.otlp\.sample_ratio: /);
});
