/** The photo upload page's links (get_photo_upload_link makes them, the page reads them). */

/** An upload link's parameters: the room the page preselects (`r`), the teammate it is for (`b`, a person id). */
export const UPLOAD_LINK_PARAMS = ['r', 'b'] as const;
/** Added after links were in use: signed only when set. */
export const UPLOAD_LINK_ADDED = ['b'] as const;
