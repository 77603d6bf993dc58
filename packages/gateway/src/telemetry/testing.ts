/**
 * A local OTLP/HTTP traces receiver for tests: a real HTTP server that decodes what the
 * official exporters send, protobuf (with the opentelemetry-proto files under fixtures/,
 * through protobufjs) or JSON (OTLP's JSON form), into plain spans.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import protobuf from 'protobufjs';

const PROTO_ROOT = new URL('./fixtures/opentelemetry-proto/', import.meta.url).pathname;

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** '' for a root span. */
  readonly parentSpanId: string;
  readonly name: string;
  /** OTLP SpanKind: 2 SERVER, 3 CLIENT. */
  readonly kind: number;
  readonly startNs: bigint;
  readonly endNs: bigint;
  readonly attributes: Readonly<Record<string, unknown>>;
  /** OTLP StatusCode: 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
  readonly resource: Readonly<Record<string, unknown>>;
}

export interface OtlpReceiver {
  /** Base URL (the exporter appends nothing when given it as a traces endpoint: use `tracesUrl`). */
  readonly url: string;
  readonly tracesUrl: string;
  readonly spans: ReceivedSpan[];
  /** Content types and raw bodies of the export requests, in order. */
  readonly exports: Array<{
    readonly contentType: string;
    readonly body: Buffer;
    readonly headers: Record<string, unknown>;
  }>;
}

type Json = Record<string, unknown>;

let exportRequest: protobuf.Type | undefined;

async function exportRequestType(): Promise<protobuf.Type> {
  if (exportRequest) return exportRequest;
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => (target.startsWith('/') ? target : PROTO_ROOT + target);
  await root.load('opentelemetry/proto/collector/trace/v1/trace_service.proto', { keepCase: false });
  exportRequest = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
  return exportRequest;
}

const list = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : []);

function anyValue(value: Json | undefined): unknown {
  if (!value) return undefined;
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return Number(value.doubleValue);
  if ('arrayValue' in value) return list((value.arrayValue as Json).values).map(anyValue);
  return undefined;
}

function attributes(items: unknown): Record<string, unknown> {
  return Object.fromEntries(list(items).map((item) => [String(item.key), anyValue(item.value as Json)]));
}

/** Protobuf ids arrive as base64 (protobufjs), JSON ones as hex (OTLP's JSON rule). */
function hexId(value: unknown, json: boolean): string {
  if (typeof value !== 'string' || value === '') return '';
  return json ? value : Buffer.from(value, 'base64').toString('hex');
}

function spansOf(request: Json, json: boolean): ReceivedSpan[] {
  return list(request.resourceSpans).flatMap((resourceSpans) => {
    const resource = attributes((resourceSpans.resource as Json | undefined)?.attributes);
    return list(resourceSpans.scopeSpans).flatMap((scope) =>
      list(scope.spans).map((span) => ({
        traceId: hexId(span.traceId, json),
        spanId: hexId(span.spanId, json),
        parentSpanId: hexId(span.parentSpanId, json),
        name: String(span.name),
        kind: Number(span.kind ?? 0),
        startNs: BigInt(String(span.startTimeUnixNano)),
        endNs: BigInt(String(span.endTimeUnixNano)),
        attributes: attributes(span.attributes),
        statusCode: Number((span.status as Json | undefined)?.code ?? 0),
        resource,
      })),
    );
  });
}

async function decode(contentType: string, body: Buffer): Promise<ReceivedSpan[]> {
  if (contentType.startsWith('application/json'))
    return spansOf(JSON.parse(body.toString('utf8')) as Json, true);
  const type = await exportRequestType();
  const object = type.toObject(type.decode(body), { longs: String, bytes: String, enums: Number });
  return spansOf(object, false);
}

export async function startOtlpReceiver(t: TestContext): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const exports: OtlpReceiver['exports'] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const contentType = String(request.headers['content-type'] ?? '');
      exports.push({ contentType, body, headers: { ...request.headers } });
      decode(contentType, body).then(
        (decoded) => {
          spans.push(...decoded);
          response.writeHead(200, { 'content-type': contentType }).end();
        },
        (error: unknown) => response.writeHead(400).end(String(error)),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, tracesUrl: `${url}/v1/traces`, spans, exports };
}
