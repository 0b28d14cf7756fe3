// The pages' Content-Security-Policy. Scripts run only with the nonce of their own response: `serve` draws a
// fresh one per request, sends the policy as the response header and puts the same policy on the request,
// where Next.js reads the nonce (its `getScriptNonceFromHeader`) and sets it on every script it renders; the
// root layout reads it there for its own inline script. 'self' lets the bundler's runtime load the chunks a
// page needs later. So no inline script without the nonce runs (`<script>`, `onerror=`), whether markup from a
// payload were ever rendered as HTML or code added it to the DOM. No 'strict-dynamic': it would trust every
// script a nonced script adds, inline ones included (Chromium runs them), and drop 'self', which already
// covers the chunks; `<script src>` of this origin reaches only the app's own files, as JSON and text answers
// are refused as scripts (nosniff). Styles keep 'unsafe-inline': React writes style attributes.
// Pure (no node: imports): the root layout imports it.

/** The policy for one response, with its script nonce. */
export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
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
