'use client';

import { RouteError, type RouteErrorProps } from '@/components/ui/route-error';

export default function RolloutError(props: RouteErrorProps) {
  return <RouteError title="This rollout could not be shown" {...props} />;
}
