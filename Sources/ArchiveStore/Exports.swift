// Transitional: consumers see the archive's values through this module until they import `Archive`.
@_exported import Archive
