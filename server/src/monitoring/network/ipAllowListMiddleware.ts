import type { RequestHandler } from 'express';
import { sendProblem } from '../http/problem.js';
import { clientAddress } from './clientAddress.js';
import type { IpAllowList } from './IpAllowList.js';

/** 403 problem for a client outside the allow-list, before any authentication. */
export function ipAllowListMiddleware(list: IpAllowList, trustForwardedFor: boolean): RequestHandler {
  return (req, res, next) => {
    if (list.allows(clientAddress(req, trustForwardedFor))) return next();
    sendProblem(res, 403, 'The client address is not in the allowed IP addresses.');
  };
}
