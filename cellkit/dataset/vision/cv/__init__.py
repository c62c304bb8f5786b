"""NumPy versions of the OpenCV routines MindSpore's image transforms are built on.

MindSpore's C++ transforms call OpenCV 4.11 (``cv::resize``, ``cv::warpAffine``, ``cv::cvtColor``,
``cv::GaussianBlur`` ...).  To give the same numbers, these functions follow OpenCV's arithmetic:
its fixed-point coefficients for 8-bit images (11 bits for resizing, 15 for remapping), its float32
coordinates, its rounding (half to even) and its order of summation, checked pixel for pixel
against MindSpore 2.10.  Images are ``(..., H, W, C)`` arrays: any leading axes are a batch of
images transformed alike.
"""
