export * from './databases.js';
export * from './ports.js';
export * from './prometheus.js';
