// The QuickBlox client arrives with issue 3.
