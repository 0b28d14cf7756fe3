'use client';

import { RouteError, type RouteErrorProps } from '@/components/ui/route-error';

export default function CompareError(props: RouteErrorProps) {
  return <RouteError title="The comparison could not be shown" {...props} />;
}
