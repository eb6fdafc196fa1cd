/** Recovery codes as a person keeps them: text to copy, and the same text as a file to download (a data: link, no script). */
import { Messages, type Translate } from '../i18n/messages.js';

let english: Translate | undefined;

/** `t`: the reader's translator (the page's language); English when not given. */
export function recoveryCodesFile(codes: string[], forWhom: string, t?: Translate): { text: string; download: string } {
  const say = t ?? (english ??= new Messages().translator('en').t);
  const text = `${say('sign_in.recovery_codes.file_heading', { name: forWhom })}\n${say('sign_in.recovery_codes.file_note')}\n\n${codes.join('\n')}\n`;
  return { text, download: `data:text/plain;charset=utf-8,${encodeURIComponent(text)}` };
}
