"""interop"""
