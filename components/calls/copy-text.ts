'use client';

/** Copies text to the clipboard (the async API where allowed, a hidden textarea otherwise). */
export async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.appendChild(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}

/** This page's URL with a JSON-pointer fragment, the link that reopens a node of the payload. */
export function linkTo(hash: string): string {
  return `${location.origin}${location.pathname}${location.search}${hash}`;
}
