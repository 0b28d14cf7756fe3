'use client';

import { RouteError, type RouteErrorProps } from '@/components/ui/route-error';

export default function DiffError(props: RouteErrorProps) {
  return <RouteError title="This diff could not be shown" {...props} />;
}
