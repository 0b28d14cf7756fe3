'use client';

import { RouteError, type RouteErrorProps } from '@/components/ui/route-error';

export default function RunError(props: RouteErrorProps) {
  return <RouteError title="This run could not be shown" {...props} />;
}
