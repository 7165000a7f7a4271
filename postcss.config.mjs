// Tailwind CSS 4 runs as a PostCSS plugin (Next reads this file).
const config = { plugins: { '@tailwindcss/postcss': {} } };
export default config;
