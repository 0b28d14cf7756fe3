/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  serverExternalPackages: ['fs-ext', 'better-sqlite3', 'chokidar', 'chdb', '@clickhouse/client'],
  typescript: { tsconfigPath: './tsconfig.json' },
};

export default nextConfig;
