export * from './task.js';
export * from './events.js';
