'use client';

import { RouteError, type RouteErrorProps } from '@/components/ui/route-error';

export default function AppError(props: RouteErrorProps) {
  return <RouteError title="Something went wrong" {...props} />;
}
