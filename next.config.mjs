/** @type {import('next').NextConfig} */
const nextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  serverExternalPackages: ['fs-ext'],
  typescript: { tsconfigPath: './tsconfig.json' },
};

export default nextConfig;
