'use client';

import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Checkbox } from '@/components/ui/checkbox';

/** Choose the runs to compare when the URL names none. */
export function RunPicker({ runs }: { runs: string[] }) {
  const router = useRouter();
  const [picked, setPicked] = useState<string[]>([]);
  const toggle = (id: string, on: boolean) => setPicked((p) => (on ? [...p, id] : p.filter((x) => x !== id)));
  return (
    <form
      className="space-y-3"
      onSubmit={(e) => {
        e.preventDefault();
        router.push(`/compare?runs=${picked.map(encodeURIComponent).join(',')}`);
      }}
    >
      <ul className="space-y-1.5">
        {runs.map((id) => (
          <li key={id}>
            <label className="flex items-center gap-2 text-sm">
              <Checkbox checked={picked.includes(id)} onChange={(e) => toggle(id, e.target.checked)} />
              {id}
            </label>
          </li>
        ))}
      </ul>
      <Button type="submit" variant="primary" disabled={picked.length < 2 || picked.length > 8}>
        Compare {picked.length >= 2 ? `${picked.length} runs` : ''}
      </Button>
    </form>
  );
}
