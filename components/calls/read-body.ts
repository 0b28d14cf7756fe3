'use client';

// A response body read as bytes and decoded once at the end. Chromium's `text()` and `json()` decode each
// arriving chunk on the main thread and build the string again when the body ends; `arrayBuffer()` only
// collects the bytes, and one `TextDecoder` pass over them is cheaper (less main-thread time for a large call
// payload, in traces).
export async function readBody(res: Response): Promise<{ text: string; bytes: number }> {
  const buffer = await res.arrayBuffer();
  return { text: new TextDecoder().decode(buffer), bytes: buffer.byteLength };
}
