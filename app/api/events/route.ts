import type { ChangeEvent } from '@/lib/index/callscope-index';
import { getInstance } from '@/lib/server/instance';

export const dynamic = 'force-dynamic';

/** Server-Sent Events: one `change` event per ingest that changed rollouts, a comment every 15 s. */
export async function GET(req: Request) {
  const { index } = await getInstance();
  const encoder = new TextEncoder();
  let cleanup = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string) => controller.enqueue(encoder.encode(text));
      const onChange = (e: ChangeEvent) => send(`event: change\ndata: ${JSON.stringify(e)}\n\n`);
      const keepAlive = setInterval(() => send(': keep-alive\n\n'), 15_000);
      index.on('change', onChange);
      send(': connected\n\n');
      cleanup = () => {
        clearInterval(keepAlive);
        index.off('change', onChange);
      };
      req.signal.addEventListener('abort', () => {
        cleanup();
        try {
          controller.close();
        } catch {
          // already closed
        }
      });
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(stream, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive' } });
}
