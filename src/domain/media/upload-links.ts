/** The photo upload page's links (get_photo_upload_link makes them, the page reads them). */

/** An upload link's parameter: the room the page preselects (`r`). */
export const UPLOAD_LINK_PARAMS = ['r'] as const;
