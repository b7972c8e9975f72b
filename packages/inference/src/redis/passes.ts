/**
 * Runs `pass` one at a time. A call during a pass asks for one more pass after it; a pass that
 * could not finish (resolves false) runs again after `retryMs`. Both only while `goOn()`.
 */
export function serialPasses(pass: () => Promise<boolean>, goOn: () => boolean, retryMs = 250) {
  let running = false;
  let again = false;
  return async function run(): Promise<void> {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        if (!(await pass()) && goOn()) {
          await new Promise((resolve) => setTimeout(resolve, retryMs));
          again = true;
        }
      } while (again && goOn());
    } finally {
      running = false;
    }
  };
}
