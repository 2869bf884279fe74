export * from './task.js';
export * from './events.js';
export * from './api.js';
export * from './taskTransitions.js';
export * from './operations.js';
