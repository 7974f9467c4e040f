/** The signed-in operator's access token and chosen store, kept in localStorage across reloads. */
const TOKEN = 'sw.accessToken';
const STORE = 'sw.storeId';

export const session = {
  token: (): string | null => localStorage.getItem(TOKEN),
  storeId: (): string | null => localStorage.getItem(STORE),
  signIn(token: string, storeId: string | null) {
    localStorage.setItem(TOKEN, token);
    if (storeId) localStorage.setItem(STORE, storeId);
  },
  chooseStore(storeId: string) {
    localStorage.setItem(STORE, storeId);
  },
  signOut() {
    localStorage.removeItem(TOKEN);
  }
};
