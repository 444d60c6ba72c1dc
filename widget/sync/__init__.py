"""Synced history, the widget's half: the page's facade (`synced`), the rounds that merge
this browser's history with the server's copy (`rounds`, importing the rest when a device
connects), and what they say to the worker (`worker`). Nothing here is browser-specific.
"""
