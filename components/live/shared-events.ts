// One GET /api/events connection per browser, shared by every callscope tab. Browsers allow six HTTP/1.1
// connections per origin, so a stream per tab left the seventh tab unable to load at all.
//
// The tabs elect a leader with the Web Locks API: every tab asks for the lock `callscope-events`, the one
// that holds it (for as long as it lives) opens the EventSource, and when it closes the lock passes to a
// waiting tab by itself. The leader rebroadcasts each `change` event and each status change on the
// BroadcastChannel `callscope-events`; a tab that starts asks (`hello`) and the leader answers with its
// status, so a new follower shows the real state at once. A `hello` to a leader whose stream failed for
// good (`closed`) makes it try again: reloading any tab reconnects, as it did with one stream per tab.
// No worker script: a strict nonce-based Content-Security-Policy blocks worker scripts and blob workers.
// Without Web Locks (an insecure context: http on another host than localhost) or BroadcastChannel, the
// tab opens its own EventSource, as before.
//
// Within a tab, every hook instance shares one subscription. The connection outlives its last listener by
// a moment, so React strict mode's double effects and a client-side navigation keep it.
export type LiveStatus = 'connecting' | 'open' | 'closed';

export interface EventsListener {
  change: (data: string) => void;
  status: (status: LiveStatus) => void;
}

type Message = { type: 'hello' } | { type: 'status'; status: LiveStatus } | { type: 'change'; data: string };

const NAME = 'callscope-events';
const LINGER_MS = 1000;
const STATUSES: readonly string[] = ['connecting', 'open', 'closed'];

const listeners = new Set<EventsListener>();
let current: LiveStatus = 'connecting';
let connection: (() => void) | null = null;
let lingering: ReturnType<typeof setTimeout> | undefined;

/** Calls `listener` with the current status now, then with every status change and change event. */
export function subscribeEvents(listener: EventsListener): () => void {
  listeners.add(listener);
  clearTimeout(lingering);
  listener.status(current);
  connection ??= connect();
  return () => {
    listeners.delete(listener);
    if (listeners.size) return;
    clearTimeout(lingering);
    lingering = setTimeout(() => {
      if (listeners.size) return;
      connection?.();
      connection = null;
      current = 'connecting';
    }, LINGER_MS);
  };
}

function setStatus(status: LiveStatus): void {
  current = status;
  for (const l of listeners) l.status(status);
}

function dispatch(data: string): void {
  for (const l of listeners) l.change(data);
}

/** Opens the stream; returns its closer. */
function openSource(onStatus: (s: LiveStatus) => void, onChange: (data: string) => void): () => void {
  const source = new EventSource('/api/events');
  onStatus('connecting');
  source.onopen = () => onStatus('open');
  source.onerror = () => onStatus(source.readyState === EventSource.CLOSED ? 'closed' : 'connecting');
  source.addEventListener('change', (event) => onChange((event as MessageEvent<string>).data));
  return () => source.close();
}

function isMessage(v: unknown): v is Message {
  if (!v || typeof v !== 'object') return false;
  const m = v as Record<string, unknown>;
  return m.type === 'hello' || (m.type === 'status' && STATUSES.includes(m.status as string)) || (m.type === 'change' && typeof m.data === 'string');
}

/** Starts this tab's part: the leader's stream or a follower's channel. Returns its stopper. */
function connect(): () => void {
  if (typeof navigator === 'undefined' || !navigator.locks || typeof BroadcastChannel === 'undefined') return openSource(setStatus, dispatch);
  const channel = new BroadcastChannel(NAME);
  const abort = new AbortController();
  let leading = false;
  let closeSource: (() => void) | null = null;
  let release: (() => void) | null = null;

  const announce = (status: LiveStatus) => {
    setStatus(status);
    channel.postMessage({ type: 'status', status } satisfies Message);
  };
  const lead = () => {
    closeSource?.();
    closeSource = openSource(announce, (data) => {
      dispatch(data);
      channel.postMessage({ type: 'change', data } satisfies Message);
    });
  };
  channel.onmessage = (event: MessageEvent<unknown>) => {
    const m = event.data;
    if (!isMessage(m)) return;
    if (m.type === 'hello') {
      if (!leading) return;
      if (current === 'closed') lead();
      else channel.postMessage({ type: 'status', status: current } satisfies Message);
    } else if (!leading) {
      if (m.type === 'status') setStatus(m.status);
      else dispatch(m.data);
    }
  };
  navigator.locks
    .request(NAME, { signal: abort.signal }, () => {
      if (abort.signal.aborted) return undefined;
      leading = true;
      lead();
      return new Promise<void>((resolve) => (release = resolve));
    })
    .catch(() => undefined); // aborted while waiting: this tab stopped before it led
  channel.postMessage({ type: 'hello' } satisfies Message);
  return () => {
    abort.abort();
    closeSource?.();
    release?.();
    channel.close();
  };
}
