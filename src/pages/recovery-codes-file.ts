/** Recovery codes as a person keeps them: text to copy, and the same text as a file to download (a data: link, no script). */
export function recoveryCodesFile(codes: string[], forWhom: string): { text: string; download: string } {
  const text = `Recovery codes for ${forWhom}\nEach works once.\n\n${codes.join('\n')}\n`;
  return { text, download: `data:text/plain;charset=utf-8,${encodeURIComponent(text)}` };
}
