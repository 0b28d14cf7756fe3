// Chromium for the end-to-end tests and the UI scripts: Debian's /usr/bin/chromium driven by playwright-core
// (never a downloaded browser), one browser per test file, and pages that record what a user never sees but a
// test must: uncaught page errors, console errors, Content-Security-Policy violations, failed requests, dialogs
// and every request URL. Requests that leave the served origin are recorded and aborted, so a stray
// `<img src=http://...>` can be counted, never fetched. `problems(t)` is what a clean page has none of;
// `visit` opens a view and holds it to that, `expectClean` holds a view the test navigated to itself.
import { chromium, type Browser, type BrowserContext, type Page, type Request, type Response } from 'playwright-core';
import { expect } from 'vitest';

export const CHROMIUM_PATH = '/usr/bin/chromium';
// Chromium builds its own omnibox-popup WebUI (a second renderer's worth of resource loads) for every new
// browser context, i.e. for every page here, which a user's long-running browser does once. On a 2-core machine
// that competed with the page under test and its server, and kept the browser process busy while the page's
// renderer waited on it for system fonts (synchronous font lookups held up a rollout page's first layout).
// These features, disabled together, stop it (none of them alone did; docs/performance-notes.md).
const CHROMIUM_OWN_UI = 'PreloadTopChromeWebUI,WebUIOmniboxPopup,WebUIOmniboxAimPopup,OmniboxPopupWebUIContent,OmniboxPopupWebUIBaseContent';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--disable-features=${CHROMIUM_OWN_UI}`];

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}

export interface TrackedPage {
  page: Page;
  context: BrowserContext;
  /** Uncaught exceptions thrown in the page. */
  pageErrors: string[];
  /** console.error messages. */
  consoleErrors: string[];
  /**
   * Content-Security-Policy violations: what the policy blocked (markup that should never have been there, or
   * a script of the app's own without the page's nonce). Both the `securitypolicyviolation` events of every
   * document and frame and Chromium's console messages about the policy ("Refused to ...", "Executing inline
   * script violates ...") land here, never in consoleErrors, so that no allowed console message hides one.
   */
  cspViolations: string[];
  /** Subresource requests that failed or answered 4xx/5xx (the page's own document is judged by `goto`). */
  failedRequests: string[];
  /** alert/confirm/prompt/beforeunload dialogs that opened (each is dismissed). */
  dialogs: string[];
  /** Every request URL the page made, in order. */
  requests: string[];
  /** Requests to any origin but the server's (aborted before they leave). */
  foreign: string[];
  /** Navigates and returns the main document's response (for its status). */
  goto: (pathOrUrl: string) => Promise<Response>;
  /** Forgets what was recorded so far (between views opened in one page). */
  reset: () => void;
  close: () => Promise<void>;
}

export interface PageOptions {
  viewport?: { width: number; height: number };
  colorScheme?: 'light' | 'dark';
  initScript?: string;
  /** The page's time zone; UTC unless a test is about zones. */
  timezoneId?: string;
}

/** A fresh context and page on `origin` that records errors, dialogs and requests. */
export async function openPage(browser: Browser, origin: string, options: PageOptions = {}): Promise<TrackedPage> {
  // UTC and en-US: the times and numbers a page shows do not depend on the machine running the test.
  const context = await browser.newContext({ baseURL: origin, viewport: options.viewport ?? { width: 1440, height: 900 }, colorScheme: options.colorScheme ?? 'light', timezoneId: options.timezoneId ?? 'UTC', locale: 'en-US' });
  const served = new URL(origin).origin;
  const t: Omit<TrackedPage, 'page' | 'goto' | 'reset' | 'close'> = { context, pageErrors: [], consoleErrors: [], cspViolations: [], failedRequests: [], dialogs: [], requests: [], foreign: [] };
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (isServed(url, served)) return route.continue();
    t.foreign.push(url);
    return route.abort('blockedbyclient');
  });
  // tsx and esbuild's keepNames wrap named functions in `__name(...)`; functions handed to page.evaluate carry
  // that call into the page, so the page gets a no-op of it.
  await context.addInitScript('globalThis.__name ??= (f) => f;');
  await context.exposeFunction('__callscopeCspViolation', (v: string) => t.cspViolations.push(v));
  await context.addInitScript(CSP_WATCH);
  if (options.initScript) await context.addInitScript(options.initScript);
  const page = await context.newPage();
  page.on('pageerror', (err) => t.pageErrors.push(`${err.name}: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    const text = msg.text();
    if (!/Content Security Policy/.test(text)) t.consoleErrors.push(text);
    else if (!(/\beval\b|evaluate a string/.test(text) && msg.location().url.startsWith(served + '/_next/static/'))) t.cspViolations.push(text);
  });
  // The main document's own status is the test's to judge (a 404 page is meant to be one).
  const ownDocument = (req: Request) => req.isNavigationRequest() && req.frame() === page.mainFrame();
  page.on('response', (res) => {
    if (res.status() >= 400 && !ownDocument(res.request())) t.failedRequests.push(`${res.status()} ${res.url()}`);
  });
  page.on('requestfailed', (req) => {
    const error = req.failure()?.errorText ?? '';
    // Aborted: a prefetch or stream the page let go of when it moved on; blocked: a foreign request, counted there.
    if (error !== 'net::ERR_ABORTED' && error !== 'net::ERR_BLOCKED_BY_CLIENT' && !ownDocument(req)) t.failedRequests.push(`${error} ${req.url()}`);
  });
  page.on('dialog', (d) => {
    t.dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss().catch(() => undefined);
  });
  page.on('request', (req) => {
    const url = req.url();
    t.requests.push(url);
    // data: and blob: never leave the machine; anything else off-origin is also caught by the route above,
    // but a request the router never sees (a service worker, a prefetch) still lands here.
    if (!isServed(url, served) && !t.foreign.includes(url)) t.foreign.push(url);
  });
  const goto = async (p: string) => {
    const res = await page.goto(p, { waitUntil: 'load' });
    if (!res) throw new Error(`no response for ${p}`);
    return res;
  };
  const reset = () => {
    for (const list of [t.pageErrors, t.consoleErrors, t.cspViolations, t.failedRequests, t.dialogs, t.requests, t.foreign]) list.length = 0;
  };
  return Object.assign(t, { page, goto, reset, close: () => context.close() });
}

// zod 4 probes `Function('')` once, in the app's own bundle, to choose its fast path (the error is caught and
// nothing runs); that report is not about what the page renders, so it is not recorded.
const CSP_WATCH = `document.addEventListener('securitypolicyviolation', (e) => {
  if (e.blockedURI === 'eval' && e.sourceFile.startsWith(location.origin + '/_next/static/')) return;
  window.__callscopeCspViolation(e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + ' in ' + e.sourceFile + ':' + e.lineNumber);
});`;

function isServed(url: string, origin: string): boolean {
  if (url.startsWith('data:') || url.startsWith('blob:') || url === 'about:blank') return true;
  try {
    return new URL(url).origin === origin;
  } catch {
    return false;
  }
}

/**
 * What the page recorded that a clean page does not: compare with CLEAN. `allowConsole` drops console errors
 * a test expects (the 404 Chromium logs for a page that is meant to be missing).
 */
export function problems(t: TrackedPage, allowConsole: RegExp[] = []): { pageErrors: string[]; consoleErrors: string[]; cspViolations: string[]; failedRequests: string[]; dialogs: string[]; foreign: string[] } {
  const consoleErrors = t.consoleErrors.filter((text) => !allowConsole.some((re) => re.test(text)));
  return { pageErrors: [...t.pageErrors], consoleErrors, cspViolations: [...t.cspViolations], failedRequests: [...t.failedRequests], dialogs: [...t.dialogs], foreign: [...t.foreign] };
}

export const CLEAN = { pageErrors: [], consoleErrors: [], cspViolations: [], failedRequests: [], dialogs: [], foreign: [] };

/** Waits until the page has nothing pending for a moment (client fetches done, effects settled). */
export async function settle(page: Page, ms = 150): Promise<void> {
  await page.waitForLoadState('load');
  await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
  await page.waitForTimeout(ms);
}

/**
 * Lets the page settle, then expects that it recorded nothing a clean page does not. `soft`: a failure is
 * reported and the test goes on (one view's problem does not hide the views after it).
 */
export async function expectClean(t: TrackedPage, options: { label?: string; soft?: boolean; allowConsole?: RegExp[]; settleMs?: number } = {}): Promise<void> {
  await settle(t.page, options.settleMs);
  (options.soft ? expect.soft : expect)(problems(t, options.allowConsole), options.label).toEqual(CLEAN);
}

/** Opens `p` in the tracked page, its records reset first, expects the answer's `status`, and waits for `ready`. */
export async function openView(t: TrackedPage, p: string, ready: (page: Page) => Promise<unknown>, status = 200): Promise<Page> {
  t.reset();
  const res = await t.goto(p);
  expect(res.status(), p).toBe(status);
  await ready(t.page);
  return t.page;
}

/** `openView`, then `expectClean` (soft unless told otherwise). */
export async function visit(t: TrackedPage, p: string, ready: (page: Page) => Promise<unknown>, options: { status?: number; soft?: boolean; allowConsole?: RegExp[] } = {}): Promise<Page> {
  await openView(t, p, ready, options.status);
  await expectClean(t, { label: p, soft: options.soft ?? true, allowConsole: options.allowConsole });
  return t.page;
}

/** Fetches JSON from the served API, failing loudly on a non-2xx answer. */
export async function apiJson<T>(origin: string, p: string): Promise<T> {
  const res = await fetch(origin + p);
  if (!res.ok) throw new Error(`${p}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** Whether the element lies fully inside the window's viewport and inside every scrolled ancestor's box. */
export function isInView(el: Element): boolean {
  const r = el.getBoundingClientRect();
  if (r.height === 0 || r.top < 0 || r.bottom > window.innerHeight || r.left < 0 || r.right > window.innerWidth) return false;
  for (let p = el.parentElement; p; p = p.parentElement) {
    const s = getComputedStyle(p);
    if (!/(auto|scroll|hidden)/.test(s.overflowY)) continue;
    const b = p.getBoundingClientRect();
    if (r.top < b.top - 1 || r.bottom > b.bottom + 1) return false;
  }
  return true;
}
