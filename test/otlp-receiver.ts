import { createServer, type Server } from 'node:http';

/** One span as an OTLP/HTTP JSON export carries it (ids are hex; times are nanoseconds as strings). */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: { key: string; value: Record<string, unknown> }[];
  /** the exporting process's `service.name` */
  service: string;
}

interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
    scopeSpans?: { spans?: Omit<ReceivedSpan, 'service'>[] }[];
  }[];
}

export interface OtlpReceiver {
  /** the OTEL_EXPORTER_OTLP_ENDPOINT that exports here */
  url: string;
  spans: ReceivedSpan[];
  /** export requests received, and the spans in them (kept or not) */
  requests: number;
  received: number;
  close(): Promise<void>;
}

/**
 * An OTLP/HTTP receiver in the test's (or bench's) process: takes `POST /v1/traces` with the JSON
 * encoding (what @opentelemetry/exporter-trace-otlp-http sends) and keeps every span it is given
 * (`keep: false`, the bench's sink: counts them only).
 */
export async function startOtlpReceiver(options: { keep?: boolean } = {}): Promise<OtlpReceiver> {
  const keep = options.keep ?? true;
  const receiver: OtlpReceiver = { url: '', spans: [], requests: 0, received: 0, close: async () => {} };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      receiver.requests += 1;
      if (request.method === 'POST' && request.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ExportRequest;
        for (const resourceSpans of body.resourceSpans ?? []) {
          const service = resourceSpans.resource?.attributes?.find((attribute) => attribute.key === 'service.name')?.value.stringValue ?? '';
          for (const scope of resourceSpans.scopeSpans ?? [])
            for (const span of scope.spans ?? []) {
              receiver.received += 1;
              if (keep) receiver.spans.push({ ...span, service });
            }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  receiver.url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  receiver.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return receiver;
}

/** A span attribute's value, whatever its type. */
export function attributeOf(span: ReceivedSpan, key: string): unknown {
  const value = span.attributes.find((attribute) => attribute.key === key)?.value;
  return value === undefined ? undefined : Object.values(value)[0];
}
