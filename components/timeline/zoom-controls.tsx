import { Maximize2, ZoomIn, ZoomOut } from 'lucide-react';
import { Button } from '@/components/ui/button';

/** The zoom buttons of a canvas timeline (the call timeline's and the trajectory's), with the gestures' hint. */
export function ZoomControls({ hint, zoomBy, zoomed, reset }: { hint: string; zoomBy: (factor: number) => void; zoomed: boolean; reset: () => void }) {
  return (
    <div className="ml-auto flex items-center gap-1">
      <span className="mr-2 hidden text-xs text-muted lg:inline">{hint}</span>
      <Button variant="ghost" aria-label="Zoom in" onClick={() => zoomBy(0.5)} size="sm">
        <ZoomIn size={14} />
      </Button>
      <Button variant="ghost" aria-label="Zoom out" onClick={() => zoomBy(2)} size="sm" disabled={!zoomed}>
        <ZoomOut size={14} />
      </Button>
      <Button variant="ghost" aria-label="Reset zoom" onClick={reset} size="sm" disabled={!zoomed}>
        <Maximize2 size={14} />
      </Button>
    </div>
  );
}
