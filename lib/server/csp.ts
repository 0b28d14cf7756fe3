// The pages' Content-Security-Policy. Scripts run only with the nonce of their own response: `serve` draws a
// fresh one per request, sends the policy as the response header and puts the same policy on the request,
// where Next.js reads the nonce (its `getScriptNonceFromHeader`) and sets it on every script it renders; the
// root layout reads it there for its own inline script. 'strict-dynamic' lets those scripts load the chunks
// they need; 'self' is the fallback for browsers without it. So markup that reaches a page from a payload
// cannot run, inline (`<script>`, `onerror=`) or from this origin (`<script src=/api/...>`), even if it were
// ever rendered as HTML. Styles keep 'unsafe-inline': React writes style attributes.
// Pure (no node: imports): the root layout imports it.

/** The policy for one response, with its script nonce. */
export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "font-src 'self'",
    "worker-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const NONCE_SOURCE = /^'nonce-([A-Za-z0-9+/_-]+={0,2})'$/;

/** The script nonce of a policy (its script-src, else default-src), as Next.js reads it; undefined without one. */
export function scriptNonce(policy: string | null | undefined): string | undefined {
  const directives = (policy ?? '').split(';').map((d) => d.trim());
  const directive = directives.find((d) => d.startsWith('script-src ')) ?? directives.find((d) => d.startsWith('default-src '));
  for (const source of directive?.split(/\s+/).slice(1) ?? []) {
    const m = NONCE_SOURCE.exec(source);
    if (m) return m[1];
  }
  return undefined;
}
