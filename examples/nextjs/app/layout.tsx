import type { ReactNode } from 'react';

export const metadata = { title: 'Vane + Next.js' };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body style={{ fontFamily: 'system-ui', margin: '2rem' }}>{children}</body>
    </html>
  );
}
