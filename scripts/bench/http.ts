// Timed GETs: the time to the end of the body, its size, and (where asked) a hash of it or the bytes on the wire.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import http from 'node:http';
import { now } from './time';

export async function timeGet(url: string): Promise<{ ms: number; bytes: number; status: number; sha256: string }> {
  const t = now();
  const res = await fetch(url);
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    hash.update(chunk);
  }
  return { ms: now() - t, bytes, status: res.status, sha256: hash.digest('hex') };
}

export async function countGet(url: string): Promise<{ ms: number; bytes: number; status: number }> {
  const t = now();
  const res = await fetch(url);
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  return { ms: now() - t, bytes, status: res.status };
}

/** GET with node:http and explicit request headers: bytes on the wire, time and the content encoding. */
export function httpGet(url: string, headers: Record<string, string>): Promise<{ ms: number; bytes: number; status: number; encoding: string | null }> {
  const t = now();
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers }, (res) => {
        let bytes = 0;
        res.on('data', (d: Buffer) => (bytes += d.length));
        res.on('end', () => resolve({ ms: now() - t, bytes, status: res.statusCode ?? 0, encoding: (res.headers['content-encoding'] as string | undefined) ?? null }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

export interface WireGet {
  client: 'curl' | 'node:http';
  ms: number;
  bytes: number;
  status: number;
  encoding: string | null;
}

let curlPresent: boolean | null = null;

/** GET received by curl (discarding the body), or by node:http where curl is missing. */
export async function wireGet(url: string, headers: Record<string, string>): Promise<WireGet> {
  curlPresent ??= existsSync('/usr/bin/curl');
  if (!curlPresent) return { client: 'node:http', ...(await httpGet(url, headers)) };
  const args = ['-s', '-o', '/dev/null', '-D', '-', '-w', '\n%{http_code} %{size_download} %{time_total}\n'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  args.push(url);
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn('/usr/bin/curl', args, { stdio: ['ignore', 'pipe', 'inherit'] });
    let text = '';
    child.stdout.on('data', (d: Buffer) => (text += d.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`curl exited ${code}`))));
  });
  const lines = out.trim().split(/\r?\n/);
  const [status, bytes, seconds] = lines[lines.length - 1].split(' ').map(Number);
  const encoding =
    lines
      .find((l) => /^content-encoding:/i.test(l))
      ?.split(':')[1]
      .trim() ?? null;
  return { client: 'curl', ms: seconds * 1000, bytes, status, encoding };
}
