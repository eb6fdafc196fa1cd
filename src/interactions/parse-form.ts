/** Parses small urlencoded form posts (the sign-in pages send nothing else). */
import { koaBody } from 'koa-body';

export const parseForm = () =>
  koaBody({ urlencoded: true, json: false, text: false, multipart: false, formLimit: '16kb' });
