import path from 'node:path';

/** Base URLs of the running instances (playwright.config.ts sets E2E_BASE_URLS). */
export const baseUrls: string[] = (process.env.E2E_BASE_URLS || 'http://127.0.0.1:3100').split(',').filter(Boolean);

/** The PostgreSQL the instances share, when the run uses one (E2E_DATABASE_URL). */
export const databaseUrl: string | undefined = process.env.E2E_DATABASE_URL || undefined;
export const usesPostgres = !!databaseUrl;
export const usesRedis = !!process.env.E2E_REDIS_URL;

export const PROJECT_ROOT = path.resolve(__dirname, '..');
